"""Layer 4: read models kept from the cardroom's notification log.

Each projection follows the log with a tracked position stored in the same
transaction as its rows, so it applies every event exactly once, resumes
where it stopped and can be rebuilt from zero. It reads the store and never
writes a stream; the API reads its views.
"""
