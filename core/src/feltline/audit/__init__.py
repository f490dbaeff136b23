"""What an auditor re-checks: the canonical form of events, their hash chain,
and the server's Ed25519 signature. Depends on the engine only, so a verifier
can use it without the store."""
