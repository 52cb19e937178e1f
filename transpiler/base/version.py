"""The release number, at the bottom so that every layer (the CLI, the linter's SARIF and
flake8 output, the disk cache's keys) can name it without importing the package root."""
VERSION = "0.1.0"
