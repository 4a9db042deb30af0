"""Application wiring: configuration, dispatcher, middlewares and entry points."""
