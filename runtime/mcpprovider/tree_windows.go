//go:build windows

package mcpprovider

import (
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// processTree is a job object holding the child; processes it spawns join
// the job automatically, and terminating the job ends them all. The job is
// also set to kill everything when its last handle closes, so even a host
// that dies without cleaning up takes its children with it.
//
// The child is created suspended and resumed only once it is in the job, so
// nothing it spawns can escape in between.
type processTree struct {
	mu  sync.Mutex
	job windows.Handle
	cmd *exec.Cmd
}

// processSuspendResume is PROCESS_SUSPEND_RESUME.
const processSuspendResume = 0x0800

var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

func prepareTree(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// No console window for console servers; no Ctrl+C from our console.
		CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW | windows.CREATE_SUSPENDED,
		HideWindow:    true,
	}
}

func attachTree(cmd *exec.Cmd) *processTree {
	t := &processTree{cmd: cmd}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|processSuspendResume, false, uint32(cmd.Process.Pid))
	if err != nil {
		return t // cannot even resume it: Kill remains
	}
	defer windows.CloseHandle(h)
	// Whatever happens below, the child must run.
	defer ntResumeProcess.Call(uintptr(h))

	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return t
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return t
	}
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return t
	}
	t.job = job
	return t
}

// kill terminates every process in the job (or, without a job, the child).
func (t *processTree) kill() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		_ = windows.TerminateJobObject(t.job, 1)
		return
	}
	// Without a job only the child can be stopped; Kill is a no-op once it
	// has been reaped, so a reused pid is never hit.
	_ = t.cmd.Process.Kill()
}

// release closes the job handle (which, with KILL_ON_JOB_CLOSE, also ends
// anything left in it).
func (t *processTree) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		windows.CloseHandle(t.job)
		t.job = 0
	}
}
