"""Layer 3b, the service layer: the cardroom's use cases (:mod:`.room`),
each deciding through the engine in one unit of work (:mod:`.work`) on the
streams a room holds (:mod:`.held`), with the dealer's part of a request
(:mod:`.dealer`); which tables this process serves and the catching up
after other writers (:mod:`.owners`); the dealer between hands and the
action clock (:mod:`.clock`). The API and the command line call it; it
calls the domain and the store."""
