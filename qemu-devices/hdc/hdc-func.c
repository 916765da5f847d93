/*
 * hdc: near-device functions.
 *
 * crc32c is QEMU's util crc32c().  aes-256-ctr goes through QEMU's crypto
 * layer (qcrypto_cipher_*): its CTR mode keeps the counter block across
 * calls but only takes whole 16-byte blocks, so a chunk that ends inside a
 * block takes one keystream block (the encryption of zeros, which advances
 * the counter) and keeps its unused bytes for the next chunk.  md5 and
 * sha256 use nettle, the library QEMU's crypto layer is built on here
 * (--enable-nettle): QEMU 7.2's qcrypto_hash API is one-shot only and a
 * digest runs over a stream that arrives in 64 KiB chunks, with earlier
 * chunks gone by the time later ones arrive; sha1 is nettle's too.  crc32
 * (IEEE 802.3) is zlib's crc32(), which chains across chunks as it is.
 * deflate is zlib's streaming deflate() producing a zlib (RFC 1950) stream;
 * gzip is the same deflate with zlib's gzip framing (RFC 1952: a 10-byte
 * header with no name and mtime 0, the CRC32 and ISIZE trailer).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/bswap.h"
#include "qemu/crc32c.h"
#include "crypto/cipher.h"
#include <nettle/md5.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>
#include <zlib.h>
#include "hdc-func.h"

#define HDC_AES_BLOCK 16

typedef struct HdcFn {
    uint8_t id;
    union {
        uint32_t crc;               /* running value, not inverted */
        struct md5_ctx md5;
        struct sha1_ctx sha1;
        struct sha256_ctx sha256;
        struct {
            QCryptoCipher *cipher;
            uint8_t ks[HDC_AES_BLOCK];  /* keystream of a partial block */
            uint8_t ks_pos;             /* next unused byte of ks */
        } aes;
        z_stream *zs;
    };
} HdcFn;

struct HdcFuncChain {
    unsigned n;
    HdcFn fn[HDC_MAX_FUNCS];
    GByteArray *tmp[2];             /* ping-pong output of transforms */
};

const char *hdc_func_name(uint8_t fn)
{
    switch (fn) {
    case HDC_FN_CRC32C:
        return "crc32c";
    case HDC_FN_MD5:
        return "md5";
    case HDC_FN_SHA256:
        return "sha256";
    case HDC_FN_AES256_CTR:
        return "aes256-ctr";
    case HDC_FN_DEFLATE:
        return "deflate";
    case HDC_FN_SHA1:
        return "sha1";
    case HDC_FN_CRC32:
        return "crc32";
    case HDC_FN_GZIP:
        return "gzip";
    default:
        return "?";
    }
}

bool hdc_func_compresses(uint8_t fn)
{
    return fn == HDC_FN_DEFLATE || fn == HDC_FN_GZIP;
}

bool hdc_func_needs_aux(const uint8_t *funcs, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        if (!hdc_func_compresses(funcs[i])) {
            return true;
        }
    }
    return false;
}

bool hdc_func_resizes(const uint8_t *funcs, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        if (hdc_func_compresses(funcs[i])) {
            return true;
        }
    }
    return false;
}

HdcFuncChain *hdc_func_new(const uint8_t *funcs, unsigned n,
                           const struct hdc_aux *aux, Error **errp)
{
    HdcFuncChain *fc = g_new0(HdcFuncChain, 1);
    unsigned i;

    fc->tmp[0] = g_byte_array_new();
    fc->tmp[1] = g_byte_array_new();
    for (i = 0; i < n; i++) {
        HdcFn *f = &fc->fn[i];

        f->id = funcs[i];
        fc->n = i + 1;
        switch (f->id) {
        case HDC_FN_CRC32C:
            f->crc = 0xffffffff;
            break;
        case HDC_FN_MD5:
            md5_init(&f->md5);
            break;
        case HDC_FN_SHA1:
            sha1_init(&f->sha1);
            break;
        case HDC_FN_CRC32:
            f->crc = crc32(0, Z_NULL, 0);
            break;
        case HDC_FN_SHA256:
            sha256_init(&f->sha256);
            break;
        case HDC_FN_AES256_CTR:
            f->aes.cipher = qcrypto_cipher_new(QCRYPTO_CIPHER_ALG_AES_256,
                                               QCRYPTO_CIPHER_MODE_CTR,
                                               aux->aes_key,
                                               sizeof(aux->aes_key), errp);
            if (!f->aes.cipher) {
                goto fail;
            }
            if (qcrypto_cipher_setiv(f->aes.cipher, aux->aes_iv,
                                     sizeof(aux->aes_iv), errp) < 0) {
                goto fail;
            }
            f->aes.ks_pos = HDC_AES_BLOCK;
            break;
        case HDC_FN_DEFLATE:
        case HDC_FN_GZIP:
            /* windowBits + 16: the same deflate in gzip framing */
            f->zs = g_new0(z_stream, 1);
            if (deflateInit2(f->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED,
                             MAX_WBITS + (f->id == HDC_FN_GZIP ? 16 : 0),
                             8, Z_DEFAULT_STRATEGY) != Z_OK) {
                g_free(f->zs);
                f->zs = NULL;
                error_setg(errp, "deflateInit failed");
                goto fail;
            }
            break;
        default:
            error_setg(errp, "unknown function %u", f->id);
            goto fail;
        }
    }
    return fc;

fail:
    hdc_func_free(fc);
    return NULL;
}

void hdc_func_free(HdcFuncChain *fc)
{
    unsigned i;

    if (!fc) {
        return;
    }
    for (i = 0; i < fc->n; i++) {
        HdcFn *f = &fc->fn[i];

        if (f->id == HDC_FN_AES256_CTR && f->aes.cipher) {
            qcrypto_cipher_free(f->aes.cipher);
        } else if (hdc_func_compresses(f->id) && f->zs) {
            deflateEnd(f->zs);
            g_free(f->zs);
        }
    }
    g_byte_array_free(fc->tmp[0], true);
    g_byte_array_free(fc->tmp[1], true);
    g_free(fc);
}

static bool hdc_aes_ctr(HdcFn *f, const uint8_t *in, uint8_t *out,
                        size_t len, Error **errp)
{
    static const uint8_t zero[HDC_AES_BLOCK];
    size_t i = 0, full;

    /* The rest of the keystream block the previous chunk started. */
    while (i < len && f->aes.ks_pos < HDC_AES_BLOCK) {
        out[i] = in[i] ^ f->aes.ks[f->aes.ks_pos++];
        i++;
    }
    full = (len - i) & ~(size_t)(HDC_AES_BLOCK - 1);
    if (full && qcrypto_cipher_encrypt(f->aes.cipher, in + i, out + i, full,
                                       errp) < 0) {
        return false;
    }
    i += full;
    if (i < len) {
        if (qcrypto_cipher_encrypt(f->aes.cipher, zero, f->aes.ks,
                                   HDC_AES_BLOCK, errp) < 0) {
            return false;
        }
        f->aes.ks_pos = 0;
        while (i < len) {
            out[i] = in[i] ^ f->aes.ks[f->aes.ks_pos++];
            i++;
        }
    }
    return true;
}

static bool hdc_deflate(HdcFn *f, const uint8_t *in, size_t len, bool last,
                        GByteArray *out, Error **errp)
{
    z_stream *zs = f->zs;
    int flush = last ? Z_FINISH : Z_NO_FLUSH;
    int ret;

    g_byte_array_set_size(out, 0);
    zs->next_in = (Bytef *)in;
    zs->avail_in = len;
    for (;;) {
        size_t used = out->len;
        size_t room = MAX(deflateBound(zs, zs->avail_in), 4096);

        g_byte_array_set_size(out, used + room);
        zs->next_out = out->data + used;
        zs->avail_out = room;
        ret = deflate(zs, flush);
        g_byte_array_set_size(out, used + room - zs->avail_out);
        if (ret == Z_STREAM_END) {
            return true;
        }
        if (ret != Z_OK && ret != Z_BUF_ERROR) {
            error_setg(errp, "deflate failed: %d", ret);
            return false;
        }
        /* Done with this chunk when all input went in and room was left. */
        if (!last && zs->avail_in == 0 && zs->avail_out != 0) {
            return true;
        }
        if (ret == Z_BUF_ERROR && zs->avail_out != 0) {
            error_setg(errp, "deflate made no progress");
            return false;
        }
    }
}

bool hdc_func_run(HdcFuncChain *fc, const uint8_t *in, size_t len,
                  bool last, GByteArray *out, Error **errp)
{
    const uint8_t *cur = in;
    size_t cur_len = len;
    unsigned i, which = 0;

    for (i = 0; fc && i < fc->n; i++) {
        HdcFn *f = &fc->fn[i];
        GByteArray *t = fc->tmp[which];

        switch (f->id) {
        case HDC_FN_CRC32C:
            /* crc32c() inverts its result: undo it to chain chunks. */
            if (cur_len) {
                f->crc = crc32c(f->crc, cur, cur_len) ^ 0xffffffff;
            }
            break;
        case HDC_FN_MD5:
            md5_update(&f->md5, cur_len, cur);
            break;
        case HDC_FN_SHA1:
            sha1_update(&f->sha1, cur_len, cur);
            break;
        case HDC_FN_CRC32:
            f->crc = crc32(f->crc, cur, cur_len);
            break;
        case HDC_FN_SHA256:
            sha256_update(&f->sha256, cur_len, cur);
            break;
        case HDC_FN_AES256_CTR:
            g_byte_array_set_size(t, cur_len);
            if (!hdc_aes_ctr(f, cur, t->data, cur_len, errp)) {
                return false;
            }
            cur = t->data;
            which ^= 1;
            break;
        case HDC_FN_DEFLATE:
        case HDC_FN_GZIP:
            if (!hdc_deflate(f, cur, cur_len, last, t, errp)) {
                return false;
            }
            cur = t->data;
            cur_len = t->len;
            which ^= 1;
            break;
        }
    }
    if (out && cur_len) {
        g_byte_array_append(out, cur, cur_len);
    }
    return true;
}

size_t hdc_func_digest(HdcFuncChain *fc, unsigned i, uint8_t out[32])
{
    HdcFn *f;

    if (!fc || i >= fc->n) {
        return 0;
    }
    f = &fc->fn[i];
    switch (f->id) {
    case HDC_FN_CRC32C:
        stl_le_p(out, f->crc ^ 0xffffffff);
        return 4;
    case HDC_FN_MD5:
        md5_digest(&f->md5, MD5_DIGEST_SIZE, out);
        return MD5_DIGEST_SIZE;
    case HDC_FN_SHA1:
        sha1_digest(&f->sha1, SHA1_DIGEST_SIZE, out);
        return SHA1_DIGEST_SIZE;
    case HDC_FN_CRC32:
        stl_le_p(out, f->crc);
        return 4;
    case HDC_FN_SHA256:
        sha256_digest(&f->sha256, SHA256_DIGEST_SIZE, out);
        return SHA256_DIGEST_SIZE;
    default:
        return 0;
    }
}
