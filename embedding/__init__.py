"""The sentence-embedding model (all-MiniLM-L6-v2 on ONNX Runtime, offline): in process for
queries, in a child process for the write path."""
