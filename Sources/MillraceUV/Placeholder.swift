// Placeholder until the MillraceUV issue lands.
