"""Destinations of the write path behind one small contract: the SQL store and the vector index."""
