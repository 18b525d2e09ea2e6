//! A test client that drives MRTR rounds against a handler in plain unit tests.
