"""Apple Notification Center Service: codec, reassembler and session."""
