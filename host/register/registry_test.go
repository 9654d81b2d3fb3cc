package register

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParentKeysAreTheKeysSettingAKeyCreates(t *testing.T) {
	tests := []struct {
		key  string
		want []string
	}{
		{`Software\Chromium\NativeMessagingHosts\com.gnosis.host`, []string{`Software\Chromium\NativeMessagingHosts`, `Software\Chromium`}},
		{`Software\Google\Chrome\NativeMessagingHosts\com.gnosis.host`,
			[]string{`Software\Google\Chrome\NativeMessagingHosts`, `Software\Google\Chrome`, `Software\Google`}},
		{`Software\Chromium`, nil},
		{`Software`, nil},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, parentKeys(tt.key)); d != "" {
			t.Errorf("parentKeys(%s) (-want +got):\n%s", tt.key, d)
		}
	}
}
