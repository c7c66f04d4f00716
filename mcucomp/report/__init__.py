"""The report of a compile: report.json's dict (build), its tables (tables), the `analyze` text/JSON/CSV (analyze),
memory.svg (svg) and report.html (html)."""
