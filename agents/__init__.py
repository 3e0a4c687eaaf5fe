"""Stream agents, windowed jobs and the projector's loop: thin loops over named steps (the reading of
text they call is in `reading`, the model in `embedding`, Claude in `llm`)."""
