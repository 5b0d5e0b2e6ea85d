-- Sign-in limits become a back-off after the last failure (lib/server/auth/sign-in-limit.ts):
-- the time of the latest counted failure decides when the next attempt may go ahead.
ALTER TABLE "SignInThrottle" ADD COLUMN "lastFailureAt" TIMESTAMPTZ(3);
UPDATE "SignInThrottle" SET "lastFailureAt" = "windowStartedAt";
ALTER TABLE "SignInThrottle" ALTER COLUMN "lastFailureAt" SET NOT NULL;
