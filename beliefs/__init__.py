"""The ground floor: the belief model (records) and the pure belief rules; imports nothing of ours."""
