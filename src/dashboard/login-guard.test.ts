import { LoginGuard } from './login-guard';

describe('LoginGuard', () => {
  it('locks an email after its failures, known or not, for lockMs; a success forgets the email only', () => {
    let now = 0;
    const guard = new LoginGuard({ perAccount: 2, perAddress: 3, windowMs: 1000, lockMs: 5000 }, () => now);
    guard.fail('a@x', '1.1.1.1');
    expect(guard.waitMs('a@x', '2.2.2.2')).toBe(0);
    guard.fail('a@x', '1.1.1.1');
    expect(guard.waitMs('a@x', '2.2.2.2')).toBe(5000);
    now = 5000;
    expect(guard.waitMs('a@x', '2.2.2.2')).toBe(0);
    // Failures older than the window do not count.
    guard.fail('b@x', '3.3.3.3');
    now = 6001;
    guard.fail('b@x', '3.3.3.3');
    expect(guard.waitMs('b@x', '4.4.4.4')).toBe(0);
    // The address: three failures within the window, over different emails, lock it for every email.
    guard.fail('c@x', '3.3.3.3');
    expect(guard.waitMs('new@x', '3.3.3.3')).toBe(0);
    guard.fail('d@x', '3.3.3.3');
    expect(guard.waitMs('new@x', '3.3.3.3')).toBe(5000);
    guard.succeed('b@x');
    expect(guard.waitMs('new@x', '3.3.3.3')).toBe(5000);
  });
});
