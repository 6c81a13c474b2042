/* A stand-in for Windows' bcryptprimitives.dll, for CI under Wine only.
 *
 * Rust's standard library takes its random bytes (the hash maps' seeds) from
 * ProcessPrng, exported by bcryptprimitives.dll since Windows 10. Wine 8 has
 * no such DLL, so every Rust program built for Windows fails to start under
 * it. This DLL exports ProcessPrng and fills the buffer from BCryptGenRandom
 * (the system RNG, which Wine has). Real Windows has the real DLL: this file
 * is never shipped nor built for users; .ci/windows builds it for the tests
 * it runs under Wine.
 */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    /* BCryptGenRandom takes a ULONG length: fill large buffers in pieces. */
    while (len > 0) {
        ULONG piece = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, piece, BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
            return FALSE;
        data += piece;
        len -= piece;
    }
    /* Windows' ProcessPrng never fails; neither may this one. */
    return TRUE;
}
