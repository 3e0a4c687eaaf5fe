"""Stream agents and windowed jobs: thin loops over plain, unit-testable steps."""
