-- CreateTable
CREATE TABLE "SignInThrottle" (
    "key" TEXT NOT NULL,
    "windowStartedAt" TIMESTAMPTZ(3) NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "SignInThrottle_pkey" PRIMARY KEY ("key")
);
