"""roombot: posts every failed AI-agent turn to its Matrix team room as one notice.

Data flows one way: sources -> normalise -> turns -> outbox -> matrix.
"""
