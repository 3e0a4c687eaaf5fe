"""The reading of text: a turn's words turned into claims and labels (decode, strip, secrets,
provenance, framing, junk, the rules extractor, normalisation, domains, sensitivity). Pure: no
broker, no database, no model client."""
