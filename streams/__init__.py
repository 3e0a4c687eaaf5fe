"""The faust app, its topics, the wire records and the one Settings class."""
