# `make demo-live`: the daemons on this machine, wordcount stock then with
# FlexSlot (demo/live.sh). Building first installs the Debian packages it
# needs (packaging/deps.sh, through $(BUILD)/config.mk). DEMO_SIZE=N scales
# the dataset.
.PHONY: demo-live
demo-live: all
	FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) demo/live.sh

# `make demo-vm`: the same on real QEMU guests, a tracker in each, under a
# private libvirtd (demo/vm.sh; tests/vm/README.md). Needs root.
.PHONY: demo-vm
demo-vm: all
	FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) demo/vm.sh

# `make demo-yarn`: the controller driving a real YARN (Hadoop's mini
# cluster) on this machine (demo/yarn.sh). It needs the JDK and Maven
# (packaging/deps.sh --yarn, installed first) and fetches Hadoop's jars once.
.PHONY: demo-yarn
demo-yarn: all
	@packaging/deps.sh --yarn
	FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) demo/yarn.sh

# `make vmexp`: the real-guest experiment of FlexSlot against the
# simulator's prediction (demo/vmexp.sh: 1.5-3 hours); `make vmexp-quick`
# checks it in a few minutes. Needs root.
.PHONY: vmexp vmexp-quick
vmexp: all
	FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) demo/vmexp.sh
vmexp-quick: all
	FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) demo/vmexp.sh --quick

# `make slo-live`: issue 21's comparison on real guests at small scale,
# ARIA alone, ARIA with the lever only and the one loop beside another
# tenant's busy guest
# (demo/slo-live.sh); `make slo-live-quick` checks it. Needs root.
.PHONY: slo-live slo-live-quick
slo-live: all
	FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) demo/slo-live.sh
slo-live-quick: all
	FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) demo/slo-live.sh --quick

# `make replay-vm`: the first jobs of SWIM's Facebook trace on real guests
# beside the simulator's prediction for them (demo/replay-vm.sh: about 15
# minutes); `make replay-vm-quick` checks it with 10 jobs. Needs root.
.PHONY: replay-vm replay-vm-quick
replay-vm: all
	FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) demo/replay-vm.sh
replay-vm-quick: all
	FLEXSLOT_BUILD=$(abspath $(BUILD)) FLEXSLOT_SRCDIR=$(CURDIR) demo/replay-vm.sh --quick
