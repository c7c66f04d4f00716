"""Escaping of outside text (model names, file names, board ids) for C comments and C string literals, and the
jinja2 environment that refuses to paste unescaped text into generated C.

Text from a model must never become C code: a name holding `*/`, a newline plus `#include`, a backslash before a
newline (line splicing), `??/` (a trigraph for backslash, which gcc -std=c99 honours) or a NUL would otherwise
end a comment or a string early, add a preprocessor line or make the file fail to compile.
"""

from __future__ import annotations

import re

import jinja2


class CommentText(str):
    """Text already escaped for the inside of a /* */ comment: printable ASCII, no `*/`, `/*`, `??` or newline."""


class StringLiteral(str):
    """A complete C string literal, quotes included, with every risky character escaped."""


def visible_escape(ch: str) -> str:
    """A character outside printable ASCII as a visible escape: \\xNN, \\uNNNN or \\UNNNNNNNN."""
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02X}"
    return f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"


def c_comment_text(text: str) -> CommentText:
    """Text to put between `/* ` and ` */` (or after ` * ` in a block comment) that reads the same and stays a comment.

    Non-printable and non-ASCII characters (NUL, CR, LF, tab, bidi controls, ...) become \\xNN / \\uNNNN escapes,
    a backslash becomes \\\\ (so no line splice and the escapes are unambiguous), and a backslash goes between the
    two characters of `*/`, `/*` and `??` (end of comment, nested-comment warning, trigraphs).
    """
    out: list[str] = []
    prev = ""
    for ch in str(text):
        if not " " <= ch <= "~":
            piece = visible_escape(ch)
        elif ch == "\\":
            piece = "\\\\"
        elif (prev, ch) in (("*", "/"), ("/", "*"), ("?", "?")):
            piece = "\\" + ch
        else:
            piece = ch
        out.append(piece)
        prev = piece[-1]
    return CommentText("".join(out))


_SIMPLE_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def c_string_literal(text: str) -> StringLiteral:
    """A C string literal holding the UTF-8 bytes of text.

    Printable ASCII stays as is apart from `"` and `\\` (escaped) and `?` (always `\\?`, so no trigraph can form);
    newline, tab and CR are \\n, \\t, \\r; every other byte is a three-digit octal escape, which, unlike a hex escape,
    cannot swallow a following digit.
    """
    out = ['"']
    for byte in str(text).encode("utf-8", "surrogatepass"):
        ch = chr(byte)
        if ch in '"\\?':
            out.append("\\" + ch)
        elif ch in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[ch])
        elif 0x20 <= byte <= 0x7E:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    out.append('"')
    return StringLiteral("".join(out))


#: What a plain (unescaped) string may contain to be pasted into C: identifiers, numbers, operators, brackets and
#: line breaks — nothing that can open or close a comment, string or character literal or preprocessor line
#: (`/`, `"`, `'`, `#`, `\\`, `?`) and nothing outside printable ASCII.
_PLAIN_C = re.compile(r"[A-Za-z0-9_ \n(){}\[\],.;:*&+\-=<>!~|]*")


class UnescapedTextError(RuntimeError):
    """A template tried to paste text that was not escaped and is not plain C (a bug in mcucomp)."""


def checked_output(value):
    """jinja2 `finalize`: let escaped text, numbers and plain C through; refuse anything else."""
    if isinstance(value, (CommentText, StringLiteral)) or not isinstance(value, str):
        return value
    if not _PLAIN_C.fullmatch(value):
        raise UnescapedTextError(
            f"Template output {value[:80]!r} is neither escaped with the c_comment / c_string filters nor plain C."
        )
    return value


def c_environment(loader: jinja2.BaseLoader) -> jinja2.Environment:
    """A jinja2 environment for C templates: filters c_comment and c_string; unescaped risky text is refused."""
    env = jinja2.Environment(loader=loader, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined, finalize=checked_output)
    env.filters["c_comment"] = c_comment_text
    env.filters["c_string"] = c_string_literal
    return env
