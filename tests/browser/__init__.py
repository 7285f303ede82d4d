"""A real Matrix web client (Hydrogen) in a real browser (Debian's Chromium)."""
