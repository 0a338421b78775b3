# util/: strbuf, error messages, allocation; no dependencies.
