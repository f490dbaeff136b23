"""Layer 3b, the service layer: the cardroom's use cases (:mod:`.room`),
each deciding through the engine in one unit of work (:mod:`.work`) on the
streams a room holds (:mod:`.held`), with the dealer's part of a request
(:mod:`.dealer`). The API and the command line call it; it calls the
domain and the store."""
