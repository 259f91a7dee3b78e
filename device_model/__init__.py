"""pto-avs golden tile-machine model of the PTO ISA (release 0.58.3)."""

SPEC_RELEASE = "0.58.3"
SPEC_COMMIT = "e599a3d36ebfad43362ff591ea5e128816c684c7"
