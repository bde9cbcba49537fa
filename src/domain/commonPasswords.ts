// The most common passwords long enough to pass the length rule, refused when a member sets a password.
//
// Source: the UK National Cyber Security Centre's list of the 100,000 passwords most often found in breaches (from Have
// I Been Pwned), as kept in danielmiessler/SecLists, Passwords/Common-Credentials/100k-most-used-passwords-NCSC.txt
// (commit 13dfe500): every entry of its first ~5,600 (the most common) with 12 characters or more, random-looking
// strings of a single leak left out. Shorter ones are already refused by PASSWORD_MIN_LENGTH. Compared
// case-insensitively, surrounding whitespace ignored.
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  "q1w2e3r4t5y6",
  "1qaz2wsx3edc",
  "qwerty123456",
  "123456654321",
  "123qweasdzxc",
  "qazwsxedcrfv",
  "112233445566",
  "123456123456",
  "qwertyqwerty",
  "123456789123",
  "123456789987654321",
  "123456789123456789",
  "1q2w3e4r5t6y7u8i9o0p",
  "1q2w3e4r5t6y7u",
  "qweasdzxc123",
  "qwertyuiop[]",
  "qwertyuiop123",
  "qwerasdfzxcv",
  "qazwsxedc123",
  "password1234",
  "megaparol12345",
  "telechargement",
  "temppassword",
  "leavemealone",
]);
