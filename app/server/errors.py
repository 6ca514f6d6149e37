"""The one error type the HTTP layer turns into a 4xx answer."""

__all__ = ["RequestError"]


class RequestError(ValueError):
    """A request the server refuses; `status` is the HTTP status to answer with."""

    def __init__(self, message: str, *, status: int = 422) -> None:
        super().__init__(message)
        self.status = status
