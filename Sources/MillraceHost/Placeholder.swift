// Placeholder until the MillraceHost issue lands.
