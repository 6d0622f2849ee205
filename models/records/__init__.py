"""The records the views draw: one module per view family, each turning a moment of the model into frozen data.

`reading.Reading` is the door: one per Sim and moment, a method per record
(ring, memory, pool, skb cache, NAPI, bus, counters, events, the cursor, the
machine objects, passport and RX path). models/read.py re-exports it with the
records' types; the views import nothing else from `models`.
"""
