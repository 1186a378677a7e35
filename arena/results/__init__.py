"""Results: ratings (TrueSkill), head-to-head, SPRT, and the reports made of recorded matches."""
