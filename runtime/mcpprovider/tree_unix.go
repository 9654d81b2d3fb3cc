//go:build unix

package mcpprovider

import (
	"os/exec"
	"syscall"
	"time"
)

// processTree is the child's process group: the child leads a new group, and
// everything it spawns joins it unless it deliberately leaves.
type processTree struct{ pgid int }

func prepareTree(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func attachTree(cmd *exec.Cmd) *processTree { return &processTree{pgid: cmd.Process.Pid} }

// killWait bounds how long kill waits for the group to actually die.
const killWait = 500 * time.Millisecond

// kill sends SIGKILL to the whole group, the child and whatever it spawned,
// and waits (briefly) until none of them runs any more: signal delivery is
// asynchronous, and "Close left nothing running" must hold when Close
// returns. It is safe after the child exited: the group lives on while a
// member does.
func (t *processTree) kill() {
	if err := syscall.Kill(-t.pgid, syscall.SIGKILL); err != nil {
		return // ESRCH: nothing left
	}
	deadline := time.Now().Add(killWait)
	for groupRunning(t.pgid) && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
}

func (t *processTree) release() {}
