// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {PoolId, PoolIdLibrary} from "@uniswap/v4-core/src/types/PoolId.sol";
import {IERC20Minimal, TokenTransfer} from "./LaunchTypes.sol";
import {LaunchFactoryCore} from "./LaunchFactoryCore.sol";
import {LaunchHook} from "./LaunchHook.sol";
import {VestingVault} from "./VestingVault.sol";

/// @title VestingLaunchFactory
/// @notice A historical-style ("timestamp-v2") factory: launches may carry immediate allocations and
/// vested allocations (steps of delay and cumulative bps) held by the vesting vault, and pay a per-quote
/// creation fee in the quote currency (native or ERC-20 via transferFrom).
contract VestingLaunchFactory is LaunchFactoryCore {
    using PoolIdLibrary for PoolKey;

    uint256 public constant MAX_VESTED_ALLOCATIONS = 64;
    uint256 public constant MAX_STEPS_PER_ALLOCATION = 24;
    uint256 public constant MAX_TOTAL_STEPS = 128;
    uint32 public constant MIN_FIRST_STEP_DELAY = 1 days;

    struct Allocation {
        address recipient;
        uint256 amount;
    }

    struct VestingStep {
        uint32 delay;
        uint16 cumulativeBps;
    }

    struct VestedAllocation {
        address beneficiary;
        uint256 amount;
        VestingStep[] steps;
    }

    /// roleMode 0: metadata fixed; 1: the creator may edit metadata.
    struct VestingLaunchParams {
        string tokenName;
        string tokenSymbol;
        string tokenContractURI;
        bytes32 creatorSalt;
        address quoteToken;
        uint64 expectedConfigVersion;
        uint64 deadline;
        Allocation[] allocations;
        VestedAllocation[] vestedAllocations;
        uint8 roleMode;
    }

    VestingVault public vestingVault;
    address public treasury;
    mapping(address => uint256) public creationFee;

    event VestingVaultSet(address vault);
    event CreationFeeUpdated(address indexed quote, uint256 amount);
    event LaunchFeePaid(address indexed payer, address indexed quote, address indexed treasury, uint256 amount);

    error InvalidAllocations();
    error InvalidCreationFeePayment(uint256 expected, uint256 actual);

    constructor(IPoolManager poolManager_, LaunchHook hook_, address feeEscrow_, address owner_)
        LaunchFactoryCore(poolManager_, hook_, feeEscrow_, owner_)
    {
        treasury = owner_;
    }

    function setVestingVault(VestingVault vault) external onlyOwner {
        if (address(vestingVault) != address(0) || vault.factory() != address(this)) revert InvalidConfig();
        vestingVault = vault;
        emit VestingVaultSet(address(vault));
    }

    function setCreationFee(address quote, uint256 amount) external onlyOwner {
        creationFee[quote] = amount;
        emit CreationFeeUpdated(quote, amount);
    }

    function launchTokenBytecodeHash(VestingLaunchParams calldata p) external view returns (bytes32) {
        return tokenDeployer.initCodeHash(p.tokenName, p.tokenSymbol, launchSupply);
    }

    function createLaunch(VestingLaunchParams calldata p) external payable returns (address token, PoolId poolId) {
        uint256 fee = creationFee[p.quoteToken];
        uint256 expectedValue = p.quoteToken == address(0) ? fee : 0;
        if (msg.value != expectedValue) revert InvalidCreationFeePayment(expectedValue, msg.value);
        if (p.roleMode > 1) revert InvalidConfig();
        uint256 reserved = _checkAllocations(p);
        Launch memory l = Launch({
            name: p.tokenName,
            symbol: p.tokenSymbol,
            contractURI: p.tokenContractURI,
            creatorSalt: p.creatorSalt,
            quote: p.quoteToken,
            expectedConfigVersion: p.expectedConfigVersion,
            deadline: p.deadline,
            metadataEditable: p.roleMode == 1,
            metadataKeys: new string[](0),
            metadataValues: new string[](0),
            reserved: reserved,
            creatorFeeRecipient: address(0)
        });
        PoolKey memory key;
        (token, key) = _launch(l, msg.sender);
        poolId = key.toId();
        _allocate(token, p);
        if (fee > 0) {
            if (p.quoteToken == address(0)) TokenTransfer.send(address(0), treasury, fee);
            else TokenTransfer.pull(p.quoteToken, msg.sender, treasury, fee);
            emit LaunchFeePaid(msg.sender, p.quoteToken, treasury, fee);
        }
    }

    function _checkAllocations(VestingLaunchParams calldata p) private view returns (uint256 reserved) {
        if (p.vestedAllocations.length > MAX_VESTED_ALLOCATIONS) revert InvalidAllocations();
        if (p.vestedAllocations.length > 0 && address(vestingVault) == address(0)) revert InvalidAllocations();
        uint256 totalSteps;
        for (uint256 i; i < p.allocations.length; ++i) {
            if (p.allocations[i].recipient == address(0) || p.allocations[i].amount == 0) revert InvalidAllocations();
            reserved += p.allocations[i].amount;
        }
        for (uint256 i; i < p.vestedAllocations.length; ++i) {
            VestedAllocation calldata v = p.vestedAllocations[i];
            uint256 n = v.steps.length;
            totalSteps += n;
            if (v.beneficiary == address(0) || v.amount == 0 || n == 0 || n > MAX_STEPS_PER_ALLOCATION) {
                revert InvalidAllocations();
            }
            if (v.steps[0].delay < MIN_FIRST_STEP_DELAY || v.steps[n - 1].cumulativeBps != 10_000) {
                revert InvalidAllocations();
            }
            for (uint256 j = 1; j < n; ++j) {
                if (v.steps[j].delay <= v.steps[j - 1].delay || v.steps[j].cumulativeBps <= v.steps[j - 1].cumulativeBps)
                {
                    revert InvalidAllocations();
                }
            }
            reserved += v.amount;
        }
        if (totalSteps > MAX_TOTAL_STEPS || reserved >= launchSupply) revert InvalidAllocations();
    }

    function _allocate(address token, VestingLaunchParams calldata p) private {
        for (uint256 i; i < p.allocations.length; ++i) {
            IERC20Minimal(token).transfer(p.allocations[i].recipient, p.allocations[i].amount);
        }
        for (uint256 i; i < p.vestedAllocations.length; ++i) {
            VestedAllocation calldata v = p.vestedAllocations[i];
            VestingVault.UnlockPoint[] memory points = new VestingVault.UnlockPoint[](v.steps.length);
            for (uint256 j; j < v.steps.length; ++j) {
                uint256 cumulative = j == v.steps.length - 1 ? v.amount : v.amount * v.steps[j].cumulativeBps / 10_000;
                points[j] = VestingVault.UnlockPoint(uint64(block.timestamp + v.steps[j].delay), uint128(cumulative));
            }
            IERC20Minimal(token).transfer(address(vestingVault), v.amount);
            vestingVault.register(token, v.beneficiary, uint128(v.amount), points);
        }
    }
}
