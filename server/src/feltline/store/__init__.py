"""The eventsourcing application that stores hands, built from configuration."""
