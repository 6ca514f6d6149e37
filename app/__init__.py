"""The `acrag` command line, the HTTP app and the chat page."""
