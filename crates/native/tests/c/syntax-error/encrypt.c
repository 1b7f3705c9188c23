/* Does not compile on purpose: `impl check` must show the compiler's message. */
#include "api.h"
int crypto_aead_encrypt(void) { return 0 }
