"""Business logic of validation and review: every write goes through here."""
