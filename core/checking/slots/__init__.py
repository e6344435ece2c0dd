"""Slot checks: the values a fact states (dates, places, numbers, relations, kin, nationality, occupation, \
prizes, names across scripts) compared with the evidence's."""
