"""Reproducible generators of realistic CLI transcripts for the importer tests."""
