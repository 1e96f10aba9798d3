/*
 * levels.c - which options change what an encoder writes (svpc.h).
 *
 * Levels choose the whole method (svpc_method(), svpc.h), not a second
 * stage's effort: cm2, the default, has no second stage, so a level that
 * only reached one changed nothing, silently.  A second stage or a level
 * that an encoder codes without is now found here, for svpc-compress to
 * refuse.
 */
#include "svpc.h"

/* [id]: what each encoder codes without (0: it passes both to its second
 * stage) */
static const unsigned encoder_ignores[SVPC_ENC_LAST + 1] = {
    [SVPC_ENC_CM2] = SVPC_IGNORES_STAGE | SVPC_IGNORES_LEVEL,
    [SVPC_ENC_FAST] = SVPC_IGNORES_STAGE,
    [SVPC_ENC_BEST] = SVPC_IGNORES_STAGE | SVPC_IGNORES_LEVEL,
    [SVPC_ENC_MIX] = SVPC_IGNORES_STAGE,
    [SVPC_ENC_CMX] = SVPC_IGNORES_STAGE | SVPC_IGNORES_LEVEL,
};

unsigned svpc_encoder_ignores(svpc_encoder enc) { return (unsigned)enc <= SVPC_ENC_LAST ? encoder_ignores[enc] : 0; }

const char *svpc_options_unused(svpc_encoder enc, int stage_given, svpc_stage stage, int level_given)
{
    const unsigned ignores = svpc_encoder_ignores(enc);
    if (stage_given && (ignores & SVPC_IGNORES_STAGE))
        return "a second stage was asked for, and it has none";
    if (level_given && (ignores & SVPC_IGNORES_LEVEL))
        return "a level was asked for, and it takes none";
    if (level_given && !(ignores & SVPC_IGNORES_STAGE) && stage == SVPC_STAGE_NONE)
        return "a level was asked for, and second stage none takes none";
    return NULL;
}
