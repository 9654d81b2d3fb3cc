//go:build windows

package register

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows/registry"
)

// SystemRegistry returns the machine's registry.
func SystemRegistry() Registry { return winRegistry{} }

type winRegistry struct{}

func hive(r Root) registry.Key {
	if r == HKLM {
		return registry.LOCAL_MACHINE
	}
	return registry.CURRENT_USER
}

func (winRegistry) Get(root Root, key string) (string, error) {
	k, err := registry.OpenKey(hive(root), key, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if errors.Is(err, registry.ErrNotExist) {
		return "", fmt.Errorf("%s\\%s: %w", root, key, ErrNoKey)
	}
	if err != nil {
		return "", fmt.Errorf("open %s\\%s: %w", root, key, err)
	}
	defer k.Close()
	v, _, err := k.GetStringValue("")
	if errors.Is(err, registry.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s\\%s: %w", root, key, err)
	}
	return v, nil
}

func (winRegistry) Set(root Root, key, value string) error {
	k, _, err := registry.CreateKey(hive(root), key, registry.SET_VALUE|registry.WOW64_64KEY)
	if err != nil {
		return fmt.Errorf("create %s\\%s: %w", root, key, err)
	}
	defer k.Close()
	if err := k.SetStringValue("", value); err != nil {
		return fmt.Errorf("set %s\\%s: %w", root, key, err)
	}
	return nil
}

func (winRegistry) Delete(root Root, key string) error {
	err := registry.DeleteKey(hive(root), key)
	if errors.Is(err, registry.ErrNotExist) {
		return fmt.Errorf("%s\\%s: %w", root, key, ErrNoKey)
	}
	if err != nil {
		return fmt.Errorf("delete %s\\%s: %w", root, key, err)
	}
	return nil
}

func (winRegistry) Exists(root Root, key string) bool {
	k, err := registry.OpenKey(hive(root), key, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if err != nil {
		return false
	}
	k.Close()
	return true
}

func (winRegistry) Contents(root Root, key string) ([]string, int, error) {
	k, err := registry.OpenKey(hive(root), key, registry.QUERY_VALUE|registry.ENUMERATE_SUB_KEYS|registry.WOW64_64KEY)
	if errors.Is(err, registry.ErrNotExist) {
		return nil, 0, fmt.Errorf("%s\\%s: %w", root, key, ErrNoKey)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("open %s\\%s: %w", root, key, err)
	}
	defer k.Close()
	info, err := k.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("stat %s\\%s: %w", root, key, err)
	}
	subs, err := k.ReadSubKeyNames(-1)
	if err != nil {
		return nil, 0, fmt.Errorf("list %s\\%s: %w", root, key, err)
	}
	return subs, int(info.ValueCount), nil
}

// MSIMunim is the Munim path the MSI stored as it was given (HKCU\MSIKey,
// value MSIMunimValue); an error when there is none.
func MSIMunim() (string, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, MSIKey, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if err != nil {
		return "", fmt.Errorf("open HKCU\\%s: %w", MSIKey, err)
	}
	defer k.Close()
	v, _, err := k.GetStringValue(MSIMunimValue)
	if err != nil {
		return "", fmt.Errorf("read HKCU\\%s\\%s: %w", MSIKey, MSIMunimValue, err)
	}
	if v == "" {
		return "", fmt.Errorf("HKCU\\%s\\%s is empty: the installer was given no MUNIM", MSIKey, MSIMunimValue)
	}
	return v, nil
}
