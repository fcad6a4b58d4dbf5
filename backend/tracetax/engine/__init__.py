"""The experiment engine: runs a configuration matrix under controlled load and stores it."""
