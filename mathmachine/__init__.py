"""The Math Behind the Machine: the course platform and its units."""
