//go:build !unix && !windows

package mcpprovider

import "os/exec"

// processTree on platforms without process groups or job objects: only the
// child itself can be stopped.
type processTree struct{ cmd *exec.Cmd }

func prepareTree(cmd *exec.Cmd) {}

func attachTree(cmd *exec.Cmd) *processTree { return &processTree{cmd: cmd} }

func (t *processTree) kill() { _ = t.cmd.Process.Kill() }

func (t *processTree) release() {}
