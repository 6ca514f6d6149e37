"""Errors that the command line reports as one clear line, without a traceback."""

__all__ = ["ModelFileError", "ModelSpecError", "PromptError", "UserError"]


class UserError(Exception):
    """A problem the user can fix: bad input, a bad setting or a missing file."""


class ModelSpecError(UserError, ValueError):
    """A model spec that names no model acrag can load."""


class ModelFileError(UserError):
    """A model file that is missing, corrupt or fails its checksum."""


class PromptError(UserError, ValueError):
    """A prompt that is empty or does not fit the model's context."""
