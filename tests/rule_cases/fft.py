"""Rule cases of ``srcgrad/rules/fft.py`` (see ``tests/rule_cases/__init__.py``): real
inputs, as the table's harness draws them (complex results get complex adjoints);
complex inputs are checked through the compiler in ``tests/test_complex.py`` and the
helpers alone in ``tests/test_fft_adjoints.py``."""
import numpy as np

from srcgrad.runtime import fft as rt


def cases(t):
    C, R = t.C, t.R
    out = [
        C(np.fft.fft, R(6)), C(np.fft.fft, R(3, 5), n=7, axis=0, id="pad"),
        C(np.fft.ifft, R(5), norm="ortho"), C(np.fft.ifft, R(2, 6), n=4, id="cut"),
        C(np.fft.rfft, R(6)), C(np.fft.rfft, R(7), n=9, norm="forward", id="odd"),
        C(np.fft.irfft, R(5)), C(np.fft.irfft, R(2, 4), n=7, id="n"),
        C(np.fft.hfft, R(4)), C(np.fft.ihfft, R(6)),
        C(np.fft.fftn, R(3, 4)), C(np.fft.fftn, R(2, 3, 4), s=(3, 5), axes=(0, 2), id="s"),
        C(np.fft.ifftn, R(3, 4), norm="ortho"), C(np.fft.rfftn, R(4, 5)),
        C(np.fft.irfftn, R(3, 4)), C(np.fft.irfftn, R(3, 4), s=(3, 5), id="s"),
        C(np.fft.fft2, R(3, 4)), C(np.fft.ifft2, R(2, 3, 4)), C(np.fft.rfft2, R(4, 6)),
        C(np.fft.irfft2, R(3, 4)),
        C(np.fft.fftshift, R(5)), C(np.fft.ifftshift, R(4, 5), axes=1, id="axes"),
    ]
    # The adjoint helpers, whose rules make a gradient through an FFT differentiable again.
    out += [
        C(rt.fft_grad, R(6), R(6), wrt=("grad",)), C(rt.ifft_grad, R(4), R(6), n=4, wrt=("grad",)),
        C(rt.rfft_grad, R(4), R(6), wrt=("grad",)), C(rt.irfft_grad, R(8), R(5), wrt=("grad",)),
        C(rt.hfft_grad, R(6), R(4), wrt=("grad",)), C(rt.ihfft_grad, R(4), R(6), wrt=("grad",)),
        C(rt.fftn_grad, R(3, 4), R(3, 4), wrt=("grad",)),
        C(rt.ifftn_grad, R(3, 4), R(3, 4), wrt=("grad",)),
        C(rt.rfftn_grad, R(3, 3), R(3, 4), wrt=("grad",)),
        C(rt.irfftn_grad, R(3, 4), R(3, 3), wrt=("grad",)),
        C(rt.fft2_grad, R(3, 4), R(3, 4), wrt=("grad",)),
        C(rt.ifft2_grad, R(3, 4), R(3, 4), wrt=("grad",)),
        C(rt.rfft2_grad, R(3, 3), R(3, 4), wrt=("grad",)),
        C(rt.irfft2_grad, R(3, 4), R(3, 3), wrt=("grad",)),
    ]
    return out
