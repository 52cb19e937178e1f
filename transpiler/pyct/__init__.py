"""Generic AST toolkit: parsing, origins, templates, loading generated code."""
