"""User-facing errors: one paragraph, a fix, a distinct exit code, never a traceback."""


class McucompError(Exception):
    """An error caused by the user's model, options or environment, shown without a traceback."""

    exit_code = 1

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class ModelError(McucompError):
    """The model file cannot be read, is invalid, or has dims that cannot be resolved."""


class UnsupportedError(McucompError):
    """Some nodes have no kernel; the message lists every one of them."""

    exit_code = 2


class OptionError(McucompError):
    """A command-line or API option is invalid."""


class OutputError(McucompError):
    """The output directory cannot be written."""


class VerifyError(McucompError):
    """Generated code and the reference disagree."""

    exit_code = 3


class FitError(McucompError):
    """The model does not fit the board's RAM or flash (mcucomp.fit); --no-fit-check overrides."""

    exit_code = 4
