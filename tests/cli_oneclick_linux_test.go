package tests

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gnosis/gnosis/internal/testshort"
)

// openPTY opens a pseudo-terminal: the controlling side, and the terminal a
// child gets as its stdin.
func openPTY(t *testing.T) (control, term *os.File) {
	t.Helper()
	control, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { control.Close() })
	fd := int(control.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open terminal: %v", err)
	}
	t.Cleanup(func() { term.Close() })
	return control, term
}

// TestCLIOneClickFromATerminalAsksFirst: gnosis-host with no arguments,
// typed in a terminal, asks before it installs; "n" changes nothing, "y"
// installs.
func TestCLIOneClickFromATerminalAsksFirst(t *testing.T) {
	testshort.Parallel(t)
	for _, tc := range []struct {
		answer    string
		installed bool
	}{{"n", false}, {"y", true}} {
		t.Run(tc.answer, func(t *testing.T) {
			h := newRegHome(t)
			control, term := openPTY(t)
			cmd := exec.Command(hostBin)
			cmd.Env, cmd.Dir = h.env(), h.home
			cmd.Stdin = term
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			prompt := make(chan string, 1)
			var rest strings.Builder
			done := make(chan struct{})
			go func() {
				defer close(done)
				r := bufio.NewReader(out)
				var seen strings.Builder
				for {
					b, err := r.ReadByte()
					if err != nil {
						return
					}
					seen.WriteByte(b)
					if strings.HasSuffix(seen.String(), "[y/N] ") {
						prompt <- seen.String()
						break
					}
				}
				for {
					line, err := r.ReadString('\n')
					rest.WriteString(line)
					if err != nil {
						return
					}
				}
			}()
			select {
			case p := <-prompt:
				if !strings.Contains(p, "register it with every browser found?") {
					t.Errorf("prompt: %q", p)
				}
			case <-done:
				cmd.Wait()
				t.Fatalf("gnosis-host ended without asking; files: %v", h.files(t))
			case <-time.After(replyTimeout):
				cmd.Process.Kill()
				t.Fatal("no prompt")
			}
			control.Write([]byte(tc.answer + "\n"))
			<-done
			if err := cmd.Wait(); err != nil {
				t.Fatalf("gnosis-host: %v\n%s", err, rest.String())
			}
			_, statErr := os.Stat(h.data + "/gnosis/gnosis-host")
			if installed := statErr == nil; installed != tc.installed {
				t.Errorf("answer %q: installed = %v, want %v\n%s", tc.answer, installed, tc.installed, rest.String())
			}
		})
	}
}
