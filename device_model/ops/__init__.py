"""The four modelled operations. TEPL operations (TCVT, TQUANT, TMULS) share the
block commit flow in ``device_model.block``; TGEMV_MX_ACC has its own CUBE path."""
from . import tcvt, tgemv, tmuls, tquant

TEPL_OPERATIONS = {"TCVT": tcvt, "TQUANT": tquant, "TMULS": tmuls}
DIRECT_CALLS = {"TCVT": tcvt.direct, "TQUANT": tquant.direct, "TMULS": tmuls.direct,
                "TGEMV_MX_ACC": tgemv.direct}
