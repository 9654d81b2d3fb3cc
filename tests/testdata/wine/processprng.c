/*
 * Test-only stand-in for Windows' bcryptprimitives.dll, for running Go
 * Windows binaries under Wine 8, which does not provide ProcessPrng (the Go
 * runtime's source of random bytes since Go 1.22). It fills the buffer from
 * RtlGenRandom (advapi32's SystemFunction036), which takes a ULONG length,
 * so large requests are served in pieces.
 *
 * Build: x86_64-w64-mingw32-gcc -shared -o bcryptprimitives.dll processprng.c -ladvapi32 -Wl,--kill-at
 */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE out, SIZE_T size)
{
    const SIZE_T piece = 1u << 28;
    while (size != 0) {
        ULONG n = (ULONG)(size < piece ? size : piece);
        if (!RtlGenRandom(out, n))
            return FALSE;
        out += n;
        size -= n;
    }
    return TRUE;
}
