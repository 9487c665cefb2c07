/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture of the remote-peer tests (peer_filters, peer_readers,
 * peer_wire, peer_fuzz): an hdsim pair with the far port in a peer
 * namespace, a bound queue and its steering (peer_env_setup()).
 *
 * Harness definitions, not declarations: each peer program includes this
 * once, after kselftest_harness.h, so that the four share one text of it.
 */
#ifndef DEVMEM_PEER_FIXTURE_H
#define DEVMEM_PEER_FIXTURE_H

#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "peer_lib.h"

FIXTURE(peer)
{
	struct devmem_env env;
};

FIXTURE_SETUP(peer)
{
	DEVMEM_ONLY_SKIP();
	if (!devmem_env_available())
		SETUP_SKIP("no hdsim driver (CONFIG_HDSIM)");
	ASSERT_EQ(0, peer_env_setup(&self->env))
		TH_LOG("no peer environment: hdsim pair, steering or binding");
}

FIXTURE_TEARDOWN(peer)
{
	EXPECT_EQ(0, devmem_env_teardown(&self->env))
		TH_LOG("bindings still alive after the teardown");
}

#endif /* DEVMEM_PEER_FIXTURE_H */
