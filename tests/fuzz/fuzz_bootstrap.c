/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/fuzz/fuzz_bootstrap.c — the bootstrap wire format's decoders
 * (backend/bootstrap_msg.h) on arbitrary bytes: what a peer sends is read
 * off a TCP socket and decoded before anything else looks at it.
 *
 * Each decoder gets the whole input (the header decoder also its first 20
 * bytes).  Beyond no crash, no read past the end and no leak (ASan), two
 * invariants:
 *   - a refusal says why (err is filled): the bootstrap prints it;
 *   - whatever decodes re-encodes to the very same bytes, because the
 *     format has exactly one encoding per message: a decoder that accepts
 *     anything the encoder would not write has skipped a check. */
#include <errno.h>

#include "backend/bootstrap_msg.h"
#include "tests/fuzz/fuzz.h"

/* The header in the first 20 bytes against a fresh encoding of what the
 * decoder read. */
static void header(const uint8_t *data, size_t size)
{
	struct cc_bmsg_hdr h;
	uint8_t again[CC_BMSG_HDR_BYTES];
	char err[256] = "";

	if (cc_bmsg_hdr_decode(data, size, &h, err, sizeof(err))) {
		if (!err[0])
			fuzz_fail("header decode failed without a message");
		return;
	}
	if (size != CC_BMSG_HDR_BYTES)
		fuzz_fail("a header of %zu bytes decoded", size);
	cc_bmsg_hdr_encode(again, h.type, h.rank, h.world, h.len);
	if (memcmp(again, data, CC_BMSG_HDR_BYTES))
		fuzz_fail("header %s rank %u world %u len %u re-encodes differently",
			  cc_bmsg_type_name(h.type), h.rank, h.world, h.len);
}

/* What the list decoders share: the header they return is the message's. */
static void same_header(const uint8_t *data, const struct cc_bmsg_hdr *h, size_t size)
{
	struct cc_bmsg_hdr x;
	char err[256];

	if (cc_bmsg_hdr_decode(data, CC_BMSG_HDR_BYTES, &x, err, sizeof(err)) ||
	    memcmp(&x, h, sizeof(x)) || (size_t)h->len + CC_BMSG_HDR_BYTES != size)
		fuzz_fail("a list decoder returned another header than the message's");
}

static void endpoints(const uint8_t *data, size_t size)
{
	struct cc_bmsg_hdr h;
	struct cc_bmsg_ep *eps = NULL;
	uint32_t n = 0;
	char err[256] = "";
	uint8_t *again;
	size_t need = 0;

	if (cc_bmsg_decode_eps(data, size, &h, &eps, &n, err, sizeof(err))) {
		if (!err[0])
			fuzz_fail("endpoints decode failed without a message");
		return;
	}
	same_header(data, &h, size);
	again = malloc(size);
	if (!again)
		abort();
	if (cc_bmsg_encode_eps(again, size, &need, h.rank, h.world, eps, n, err, sizeof(err)))
		fuzz_fail("decoded endpoints do not encode: %s", err);
	if (need != size || memcmp(again, data, size))
		fuzz_fail("%u endpoints re-encode differently (%zu bytes, was %zu)", n, need, size);
	free(again);
	free(eps);
}

static void mrs(const uint8_t *data, size_t size)
{
	struct cc_bmsg_hdr h;
	struct cc_bmsg_mr *m = NULL;
	uint32_t n = 0;
	char err[256] = "";
	uint8_t *again;
	size_t need = 0;

	if (cc_bmsg_decode_mrs(data, size, &h, &m, &n, err, sizeof(err))) {
		if (!err[0])
			fuzz_fail("MRs decode failed without a message");
		return;
	}
	same_header(data, &h, size);
	again = malloc(size);
	if (!again)
		abort();
	if (cc_bmsg_encode_mrs(again, size, &need, h.rank, h.world, m, n, err, sizeof(err)))
		fuzz_fail("decoded MRs do not encode: %s", err);
	if (need != size || memcmp(again, data, size))
		fuzz_fail("%u MRs re-encode differently (%zu bytes, was %zu)", n, need, size);
	free(again);
	free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	header(data, size);
	if (size >= CC_BMSG_HDR_BYTES)
		header(data, CC_BMSG_HDR_BYTES);
	endpoints(data, size);
	mrs(data, size);
	return 0;
}
