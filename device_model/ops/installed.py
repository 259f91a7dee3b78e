"""Imports every operation module, so each joins ``ops.registry``."""
from . import (tabs, tand, tcvt, texpands, matmul, tmax, tmaxs, tmin, tmins, tmuls, tneg,  # noqa: F401
               tnot, tor, tors, tquant, trelu, tshl, tshls, tshr, tshrs, txor, txors, tands)
from . import (tadd, tadds, tdiv, tdivs, texp, tfma, tlog, tmul, trecip, trem, trems,  # noqa: F401
               trsqrt, tsqrt, tsub, tsubs)
from . import tcmp, tcmps, tsel, tsels  # noqa: F401
from . import (tcolexpand, tcolexpandadd, tcolexpanddiv, tcolexpandexpdif, tcolexpandmax,  # noqa: F401
               tcolexpandmin, tcolexpandmul, tcolexpandsub, tpartadd, tpartmax, tpartmin, tpartmul,
               trowexpand, trowexpandadd, trowexpanddiv, trowexpandexpdif, trowexpandmax, trowexpandmin,
               trowexpandmul, trowexpandsub)
from . import (tcolargmax, tcolargmin, tcolmax, tcolmin, tcolprod, tcolsum, trowargmax,  # noqa: F401
               trowargmin, trowmax, trowmin, trowprod, trowsum)
from . import tconcat, textract, tfillpad, timg2col, tinsert, ttrans  # noqa: F401
from . import tci, tdequant, tgather, thistogram, tscatter, ttri  # noqa: F401
from . import tmrgsort, tsort  # noqa: F401
from . import tload, tprefetch, tstore  # noqa: F401  (the memory flow)
from . import gmov, tmov  # noqa: F401  (the tile-to-tile moves)
from . import mgather, mgather_cas, mgather_mask, mscatter, mscatter_mask  # noqa: F401  (the indexed memory flow)
