"""HTTP serving: the chat page, the LangGraph-API subset for `acrag serve`, uploads."""
