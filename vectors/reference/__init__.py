"""Independent exact references for the vectors (share no code with the golden model)."""
