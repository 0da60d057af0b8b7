// The core module; sources land with the core issue.
